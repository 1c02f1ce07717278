"""The trees the source texts draw, as the shared data's README transcribes them (text 000's
Figs 4.3 to 4.9, Mitchell's PlayTennis tree of text 001, the AIMA restaurant tree of text
004). Comments in parentheses are not part of a drawing (helpers.clean_drawing drops them).
"""

FIG_4_3 = """
texture = clear
    root = curly: yes
    root = slightly_curly
        color = green: yes
        color = dark
            surface = hard: yes
            surface = soft: no
        color = light: yes            (empty branch: parent's majority)
    root = straight: no
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
"""

FIG_4_7 = """
texture = clear
    density <= 0.3815: no
    density >  0.3815: yes
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
"""

FIG_4_8 = """
texture = clear
    root = curly: yes
    root = slightly_curly
        color = green: yes
        color = dark
            surface = hard: yes
            surface = soft: no
        color = light: yes            (empty branch: parent's majority)
    root = straight: no
texture = slightly_blurry
    sound = muffled
        umbilicus = hollow: no
        umbilicus = slightly_hollow: yes
        umbilicus = flat: yes         (empty branch: parent's majority)
    sound = dull: no
    sound = crisp: no
texture = blurry
    color = green: no
    color = dark: yes
    color = light: no
"""

FIG_4_9 = """
sugar <= 0.1260: no
sugar >  0.1260
    density <= 0.3815: no
    density >  0.3815
        sugar <= 0.2045
            density <= 0.5600: yes
            density >  0.5600: no
        sugar >  0.2045: yes
"""

# Mitchell draws Wind = Strong before Wind = Weak; the children follow the category
# order of the data (playtennis.meta.json: Weak, Strong). MITCHELL is the README's drawing
# (compared without regard to sibling order), MITCHELL_ORDERED the exact export.
MITCHELL = """
Outlook = Sunny
    Humidity = High: No
    Humidity = Normal: Yes
Outlook = Overcast: Yes
Outlook = Rain
    Wind = Strong: No
    Wind = Weak: Yes
"""
MITCHELL_ORDERED = """
Outlook = Sunny
    Humidity = High: No
    Humidity = Normal: Yes
Outlook = Overcast: Yes
Outlook = Rain
    Wind = Weak: Yes
    Wind = Strong: No
"""

AIMA = """
Patrons = None: No
Patrons = Some: Yes
Patrons = Full
    Hungry = Yes
        Type = French: No             (empty branch: parent's 2:2 tie goes to its parent's majority)
        Type = Italian: No
        Type = Thai
            FriSat = Yes: Yes
            FriSat = No: No
        Type = Burger: Yes
    Hungry = No: No
"""

# Text 000 §4.3, the Table 4.2 split of watermelon 2.0 (umbilicus put first: it ties color).
FIG_4_4 = """
umbilicus = hollow
    color = green: yes
    color = dark: yes
    color = light: no
umbilicus = slightly_hollow
    root = curly: no
    root = slightly_curly
        color = green: yes
        color = dark
            texture = clear: no
            texture = slightly_blurry: yes
            texture = blurry: yes
        color = light: yes
    root = straight: yes
umbilicus = flat: no
"""

FIG_4_5 = """
umbilicus = hollow: yes
umbilicus = slightly_hollow: yes
umbilicus = flat: no
"""

FIG_4_6 = """
umbilicus = hollow: yes
umbilicus = slightly_hollow
    root = curly: no
    root = slightly_curly
        color = green: yes
        color = dark: yes
        color = light: yes
    root = straight: yes
umbilicus = flat: no
"""
